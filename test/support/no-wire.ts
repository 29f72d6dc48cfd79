/**
 * Setup file of the unit tier: a unit test neither listens on a port nor starts a process. Those
 * that do (an embedded emulator, a local server, a tool run as `npm run` runs it) belong to the
 * e2e tier, named `*.e2e.test.ts` beside the code they cover, where each file has a process of
 * its own; the unit tier shares one module graph between its files, in threads, to stay fast.
 * @module
 */
import { ChildProcess } from 'node:child_process';
import { Server } from 'node:net';

const MOVE = 'name the test file *.e2e.test.ts (the e2e tier, vitest.config.ts) to run it';

Server.prototype.listen = function refuseListen(): never {
  throw new Error(`A unit test may not listen on a port: ${MOVE}`);
};
// What spawn, exec, execFile and fork call for every child; not in @types/node.
(ChildProcess.prototype as unknown as { spawn: () => never }).spawn = function refuseSpawn() {
  throw new Error(`A unit test may not start a process: ${MOVE}`);
};
