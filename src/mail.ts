import nodemailer from 'nodemailer';
import type { Config } from './config.js';

/** Outgoing mail. Only invitations send any today. */
export interface Mailer {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

/** Mail over SMTP through nodemailer (MMGEN_SMTP_URL, MMGEN_MAIL_FROM); null when no SMTP server is configured. */
export function createMailer(smtp: Config['smtp']): Mailer | null {
  if (!smtp) return null;
  const transport = nodemailer.createTransport(smtp.url);
  return {
    async send(message) {
      await transport.sendMail({ from: smtp.from, to: message.to, subject: message.subject, text: message.text });
    },
    close() {
      transport.close();
    },
  };
}
