// What serve's start-up helper (prep-worker.ts) is given and what it says back, and the list of files
// it is given: a file of its own, so the helper loads none of the serving thread's code.
import { readdirSync, statSync } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';
import { manifestSources } from './manifest-sources.js';
import { manifestFilesIn } from '../lazy-yaml/index.js';

/** What the helper is started with. */
export interface HelperStart {
  /** The manifest files serve will load, in its order (helperPlanOf). */
  files: string[];
  /**
   * One slot per file, claimed once with Atomics.compareExchange from FREE: by the helper just
   * before it reads the file, or by the serving thread when it wants the file first, which then
   * parses it itself. So the helper skips a file the serving thread has parsed.
   */
  claims: Int32Array;
  /** Whether serve holds the main isolate's nursery: the helper's start undid it (nursery/). */
  nursery: SharedArrayBuffer;
  /** Where the helper sends its notes: a channel of its own, so the serving thread can take what was sent while it was busy (receiveMessageOnPort). */
  port: MessagePort;
}

export const FREE = 0;
export const BY_HELPER = 1;
export const BY_SERVER = 2;

/**
 * From the helper: each file once read, with its text and that text's YAML data, or alone (not
 * read, or read with a problem: the serving thread parses it and reports what is wrong, as ever);
 * `done` as it ends.
 */
export interface HelperNote {
  file?: string;
  text?: string;
  data?: unknown;
  done?: boolean;
}

/**
 * The manifest files serve will load from `--manifests` (or its default folders), in its order:
 * each *.yaml / *.yml directly in a folder by name (lazy-yaml's manifestFilesIn, the loaders' own
 * rule), or a file named alone.
 * The installed store's tools are left to serve, which checks them against the lockfile first.
 */
export function helperPlanOf(manifests: string[], cwd: string): string[] {
  let paths: string[];
  try {
    paths = manifestSources(manifests, cwd).paths;
  } catch {
    return []; // a --manifests path that does not exist: serve reports it
  }
  const files: string[] = [];
  for (const path of paths) {
    try {
      if (!statSync(path).isDirectory()) files.push(path);
      else files.push(...manifestFilesIn(path, readdirSync(path, { withFileTypes: true })));
    } catch {
      /* serve reports a folder it cannot read */
    }
  }
  return files;
}
