import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A mail as the test SMTP server accepted it. */
export interface ReceivedMail {
  messageId: string;
  to: string;
  from: string;
  subject: string;
  text: string;
  /** When the server answered 250 to its DATA (the accept). */
  acceptedAt: number;
}

export interface TestSmtpServer {
  /** smtp://127.0.0.1:<port> (no TLS: loopback). */
  url: string;
  received: ReceivedMail[];
  /** While set, every mail is refused at DATA with this reply code (451: try later, 554: refused). */
  refuseWith: number | undefined;
  /** Waits this long before accepting each mail (a slow server keeps many notices in flight). */
  acceptDelayMs: number;
  /** Called just before the server accepts a mail (the SIGKILL test kills the worker from here). */
  onAccept: ((mail: ReceivedMail) => void) | undefined;
  close(): Promise<void>;
}

/** A real SMTP server (the `smtp-server` package) on a loopback port, which keeps what it accepts. */
export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  const state: TestSmtpServer = {
    url: '',
    received: [],
    refuseWith: undefined,
    acceptDelayMs: 0,
    onAccept: undefined,
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    maxClients: 100,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', async () => {
        if (state.refuseWith !== undefined) {
          const error = Object.assign(new Error('Mailbox unavailable, try later'), {
            responseCode: state.refuseWith,
          });
          callback(error);
          return;
        }
        const parsed = await simpleParser(Buffer.concat(chunks));
        if (state.acceptDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.acceptDelayMs));
        const mail: ReceivedMail = {
          messageId: parsed.messageId ?? '',
          to: parsed.to === undefined ? '' : ([parsed.to].flat()[0]?.text ?? ''),
          from: parsed.from?.text ?? '',
          subject: parsed.subject ?? '',
          text: parsed.text ?? '',
          acceptedAt: Date.now(),
        };
        state.onAccept?.(mail);
        state.received.push(mail);
        callback();
      });
    },
  });
  // A client killed mid-conversation resets its connection: that is the test, not a server failure.
  server.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') throw error;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  state.url = `smtp://127.0.0.1:${port}`;
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}
