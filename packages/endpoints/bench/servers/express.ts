import express from 'express';
import { announce, HELLO } from './ready.js';

const app = express();
app.disable('etag');
app.disable('x-powered-by');
app.get('/', (_req, res) => {
  res.json(HELLO);
});
app.get('/users/:userId/posts/:postId', (req, res) => {
  res.json({ userId: req.params.userId, postId: req.params.postId });
});
const server = app.listen(0, '127.0.0.1', () => announce(server.address()));
