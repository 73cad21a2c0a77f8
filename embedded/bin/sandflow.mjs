#!/usr/bin/env node
// `sandflow <command>`: today `sandflow agent --api URL --token T` (embedded/src/agent). The sources
// are TypeScript run through tsx, as `npm start`'s development path does.
import { register } from 'tsx/esm/api';

register();
const [command, ...rest] = process.argv.slice(2);
if (command !== 'agent') {
  console.error(
    'usage: sandflow agent --api URL --token TOKEN [--data DIR] [--cpu MILLICORES] [--memory MB] [--disk MB] [--metrics-port PORT]',
  );
  process.exit(2);
}
const { agentMain } = await import('../src/agent/main.ts');
agentMain(rest).catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
