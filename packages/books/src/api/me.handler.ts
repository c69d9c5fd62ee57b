import { signedInUser } from '../auth/signed-in-user.js';
import { baseUrlOf, link } from '../http/links.js';
import { HAL_CONTENT_TYPE, type OperationHandlers } from '../http/operations.js';

export function meHandlers(publicBaseUrl: string | undefined): Pick<OperationHandlers, 'getCurrentUser'> {
  return {
    async getCurrentUser(request, reply) {
      const user = signedInUser(request);
      const base = baseUrlOf(request, publicBaseUrl);
      reply.type(HAL_CONTENT_TYPE);
      return {
        id: user.id,
        email: user.email,
        emailVerified: user.emailVerified,
        name: user.name,
        role: user.role,
        _links: { self: link(base, '/me'), reservations: link(base, '/reservations') },
      };
    },
  };
}
