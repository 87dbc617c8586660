import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** A captured mail: its recipients and raw text (as sent: quoted-printable, soft line breaks). */
export interface CapturedMail {
  to: string[];
  raw: string;
}

/**
 * A real SMTP server (the `smtp-server` package, nodemailer's own) on a loopback port, keeping every mail it
 * accepts. No authentication and no STARTTLS: mmgen's mailer is pointed at it with a plain smtp:// URL.
 */
export async function startSmtpCapture(): Promise<{ url: string; mails: CapturedMail[]; close(): Promise<void> }> {
  const mails: CapturedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, mails, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The invitation link in a captured mail, its quoted-printable soft breaks and `=3D` undone. */
export function linkInMail(mail: CapturedMail): string | undefined {
  return /https?:\/\/\S+#token=[0-9A-Za-z]+/.exec(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[0];
}
