import { SandboxNode } from './SandboxNode';
import { StartNode } from './StartNode';
import { SwitchNode } from './SwitchNode';

/** React Flow's node types (a constant: a new object each render would remount every node). */
export const nodeTypes = { sandbox: SandboxNode, switch: SwitchNode, start: StartNode };
