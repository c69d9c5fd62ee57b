// Types for redis-parser 3 (the RESP reader ioredis uses), which ships none.
declare module 'redis-parser' {
  interface RedisParserOptions {
    returnReply(reply: unknown): void;
    returnError(error: Error): void;
    returnFatalError?(error: Error): void;
    returnBuffers?: boolean;
    stringNumbers?: boolean;
  }
  class RedisParser {
    constructor(options: RedisParserOptions);
    execute(chunk: Buffer): void;
    reset(): void;
  }
  export = RedisParser;
}
