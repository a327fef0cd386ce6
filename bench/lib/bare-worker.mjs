// A Node worker that loads nothing: the floor under an instance worker's RSS (bench/lib/rss-probe.mjs).
import { parentPort } from 'node:worker_threads';

// the listener keeps the worker alive until it is terminated
parentPort.once('message', () => process.exit(0));
parentPort.postMessage('ready');
