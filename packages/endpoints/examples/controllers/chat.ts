import { Controller } from '../../src/index.js';

/** One message of the chat room. */
export interface Message {
  id: number;
  text: string;
  /** When the server received it. */
  at: Date;
}

const messages: Message[] = [];

/**
 * A chat room over a WebSocket (`ws://127.0.0.1:8000/chat`) or plain HTTP: `GET /chat?since=0`
 * lists the messages after an id, `POST /chat` with `{ "text": … }` adds one (201).
 */
export class Default extends Controller {
  static override types = { GET: { since: Number } };

  /** Accepts every connection; the reply frame says hello. */
  CONNECT(): string {
    return 'welcome to the chat';
  }

  DISCONNECT(): void {}

  /** Lists the messages whose id is above `since`. */
  GET({ since = 0 }: { since?: number } = {}): Message[] {
    return messages.filter((message) => message.id > since);
  }

  /** Adds a message; answers 201 with it. */
  POST({ text }: { text: string }): Message {
    const message = { id: messages.length + 1, text, at: new Date() };
    messages.push(message);
    this.response.code = 201;
    return message;
  }
}
