import { defineCommand } from '../command.js';
import { loadPinCommand } from '../load-pin-command.js';
import { UsageError } from '../usage-error.js';

/** `mcp-chain pin status|accept`: the pin store of the `pin` middleware, reviewed by a person. */
export const pinCommand = defineCommand({
  name: 'pin',
  summary: 'show the tools the `pin` middleware pinned, and review and accept their changes',
  synopsis: [
    { usage: 'status [--store <file>]', summary: 'pinned tools per namespace, and the tools whose definition changed' },
    { usage: 'accept [tool...] [--store <file>] [--namespace <ns>] [--yes]', summary: 'show each pending change as a diff and accept it' },
  ],
  description: [
    'The `pin` middleware pins each tool\'s definition (name, title, description, input and output schemas, annotations) the first time it is listed, and records a different definition seen later as pending. `pin status` prints, on stdout, how many tools each namespace (a server, or "gateway") has pinned and which have pending changes. `pin accept` prints each pending change (of the tools named, or all; of one namespace with --namespace) as a unified diff of the pinned and the pending definition, pretty-printed JSON, and asks `Accept? [y/N]` on a terminal; --yes accepts them without asking. An accepted definition becomes the pinned one, and running gateways apply it at their next tools/list.',
    'Exit codes: 0 done (changes declined at the prompt stay pending); 1 the store cannot be read or written (a corrupt file is reported, never overwritten), a tool named has no pending change, or `pin accept` has no terminal to ask on and no --yes; 2 a usage mistake.',
    'Example: `mcp-chain pin accept search_issues --namespace github`',
  ],
  positionals: [
    { name: 'action', help: '`status` or `accept`' },
    { name: 'tool', optional: true, variadic: true, help: '`accept` only: the tools whose changes to show and accept (default: all)' },
  ],
  options: {
    store: { type: 'string', value: '<file>', help: 'the pin store (default $XDG_CONFIG_HOME/mcp-chain/pins.json, or ~/.config/mcp-chain/pins.json)' },
    namespace: { type: 'string', value: '<ns>', help: '`accept` only: the changes of this namespace only (a server\'s name, or "gateway")' },
    yes: { type: 'boolean', short: 'y', help: '`accept` only: accept without asking (needed without a terminal)' },
  },
  async run({ values, positionals }) {
    const [action, ...tools] = positionals;
    if (action !== 'status' && action !== 'accept') throw new UsageError(`unknown pin action '${action ?? ''}': expected status or accept`, 'pin');
    const store = values.store;
    const command = await loadPinCommand();
    if (action === 'status') {
      if (tools.length > 0 || values.namespace !== undefined || values.yes === true) {
        throw new UsageError('pin status takes no tools, --namespace or --yes', 'pin');
      }
      return command.pinStatus({ store });
    }
    return command.pinAccept({ store, namespace: values.namespace, tools, yes: values.yes === true });
  },
});
