import nodemailer from 'nodemailer';
import type { NoticeMail } from './notice-mail.js';

/** Hands a mail on; resolves once the receiving server accepted it. */
export interface MailSender {
  send(mail: NoticeMail): Promise<void>;
  close(): void;
}

/**
 * SMTP through nodemailer, with a pool of connections (a notice does not pay for a handshake) unless
 * the URL says otherwise (`?pool=false`), and timeouts of 10 s to connect, 10 s for the greeting and 30 s
 * of silence; the URL's own options (`smtps://`, auth, `?ignoreTLS=true`, other timeouts) are nodemailer's.
 */
export function smtpSender(smtpUrl: string): MailSender {
  const url = new URL(smtpUrl);
  if (!url.searchParams.has('pool')) url.searchParams.set('pool', 'true');
  if (!url.searchParams.has('maxConnections')) url.searchParams.set('maxConnections', '5');
  // A send must end well within a claim's lease (NOTICE_LEASE, 2 min by default), or another round could
  // take the notice while this one may still succeed: nodemailer's own defaults wait up to 10 minutes.
  const timeouts = { connectionTimeout: '10000', greetingTimeout: '10000', socketTimeout: '30000' };
  for (const [name, ms] of Object.entries(timeouts)) {
    if (!url.searchParams.has(name)) url.searchParams.set(name, ms);
  }
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

/**
 * The development mailbox (no SMTP_URL, outside production): nothing leaves the process; the notice is
 * marked sent, and the mailbox page shows it composed by the same code as a real mail.
 */
export function developmentMailbox(): MailSender {
  return { send: async () => {}, close: () => {} };
}
