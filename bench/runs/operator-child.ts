// The operator alone in its own process, for bench/runs: its memory can then be measured apart from
// kube-lite, PGlite and the runner. argv: <kubeconfig path> <options JSON>. Reports
// { rss, heapUsed } to the parent over IPC every 200 ms.
import { KubeConfig } from '@kubernetes/client-node';
import { startOperator } from '@sandflow/operator';
import pino from 'pino';

const kc = new KubeConfig();
kc.loadFromFile(process.argv[2]!);
const options = JSON.parse(process.argv[3] ?? '{}') as Record<string, unknown>;
const op = await startOperator({ kc, logger: pino({ level: 'silent' }), ...options });
const report = () => {
  const m = process.memoryUsage();
  process.send?.({ rss: m.rss, heapUsed: m.heapUsed });
};
setInterval(report, 200);
report();
process.on('message', (m) => {
  if (m === 'stop') void op.stop().then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
