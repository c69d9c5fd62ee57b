import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * fastify's per-request lines ("incoming request", "request completed") at debug rather than info: at the
 * default LOG_LEVEL=info a terminal shows what happened to the service, not every request; LOG_LEVEL=debug
 * brings them back. A request that failed ("request errored") stays at error.
 */
export class RequestLinesAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
    metadata?: Record<string, unknown>,
  ): void {
    if (error) super.requestCompleted(error, request, reply, metadata);
    else if (!this.isLogDisabled(request))
      reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
