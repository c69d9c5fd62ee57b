import nodemailer from 'nodemailer';
import type { NoticeMail } from './notice-mail.js';

/** Hands a mail on; resolves once the receiving server accepted it. */
export interface MailSender {
  send(mail: NoticeMail): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer, with a pool of connections (a notice does not pay for a handshake) unless
 * the URL says otherwise (`?pool=false`); the URL's own options (`smtps://`, auth, `?ignoreTLS=true`)
 * are nodemailer's.
 */
export function smtpSender(smtpUrl: string): MailSender {
  const url = new URL(smtpUrl);
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true');
  if (!url.searchParams.has('maxConnections')) url.searchParams.set('maxConnections', '5');
  const transport = nodemailer.createTransport(url.toString());
  return {
    async send(mail) {
      await transport.sendMail({
        messageId: mail.messageId,
        from: mail.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        date: mail.date,
      });
    },
    close: () => transport.close(),
  };
}
