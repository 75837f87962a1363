import { defineCommand } from '../command.js';
import { loadPinCommand } from '../load-pin-command.js';
import { UsageError } from '../usage-error.js';

/** `mcp-chain pin status|accept`: the pin store of the `pin` middleware, reviewed by a person. */
export const pinCommand = defineCommand({
  name: 'pin',
  summary: 'show the tools the `pin` middleware pinned, and review and accept their changes',
  synopsis: [
    { usage: 'status [--store <file> | --config <file>]', summary: 'pinned tools per namespace, the tools whose definition changed, and new tools held back' },
    { usage: 'accept [tool...] [--store <file> | --config <file>] [--namespace <ns>] [--yes]', summary: 'show each pending change as a diff and accept it' },
  ],
  description: [
    'The `pin` middleware pins each tool\'s definition (name, title, description, input and output schemas, annotations) the first time it is listed, and records a different definition seen later as pending; with `onNew: "hide"`, a tool added to a server after its tools were pinned is held back as new, unpinned. `pin status` prints, on stdout, how many tools each namespace (a server, or "gateway") has pinned, which have pending changes and which new tools are held back. `pin accept` prints each pending change (of the tools named, or all; of one namespace with --namespace) as a unified diff of the pinned and the pending definition (a new tool: a diff from nothing), pretty-printed JSON, and asks `Accept? [y/N]` on a terminal; --yes accepts them without asking. An accepted definition becomes the pinned one, and running gateways apply it at their next tools/list.',
    'With --config, the stores are those of the config file\'s `pin` entries (the gateway\'s `middleware` and the servers\' own lists; a relative `store` is relative to the config file, the default store when an entry names none), each named in the output; `pin accept` without --namespace accepts only in the namespaces those entries use. Middleware given as functions (a TypeScript config) cannot be read this way: give --store.',
    'Exit codes: 0 done (changes declined at the prompt stay pending); 1 the store cannot be read or written (a corrupt file is reported, never overwritten), the config file cannot be read or has no `pin` entry, a tool named has no pending change, or `pin accept` has no terminal to ask on and no --yes; 2 a usage mistake.',
    'Example: `mcp-chain pin accept search_issues --namespace github`',
  ],
  positionals: [
    { name: 'action', help: '`status` or `accept`' },
    { name: 'tool', optional: true, variadic: true, help: '`accept` only: the tools whose changes to show and accept (default: all)' },
  ],
  options: {
    store: { type: 'string', value: '<file>', help: 'the pin store (default $XDG_CONFIG_HOME/mcp-chain/pins.json, or ~/.config/mcp-chain/pins.json)' },
    config: { type: 'string', value: '<file>', help: 'the stores (and, for `accept` without --namespace, the namespaces) of this config file\'s `pin` entries, instead of --store' },
    namespace: { type: 'string', value: '<ns>', help: '`accept` only: the changes of this namespace only (a server\'s name, or "gateway")' },
    yes: { type: 'boolean', short: 'y', help: '`accept` only: accept without asking (needed without a terminal)' },
  },
  async run({ values, positionals }) {
    const [action, ...tools] = positionals;
    if (action !== 'status' && action !== 'accept') throw new UsageError(`unknown pin action '${action ?? ''}': expected status or accept`, 'pin');
    const { store, config } = values;
    if (store !== undefined && config !== undefined) throw new UsageError('give --store or --config, not both', 'pin');
    if (action === 'status' && (tools.length > 0 || values.namespace !== undefined || values.yes === true)) {
      throw new UsageError('pin status takes no tools, --namespace or --yes', 'pin');
    }
    const command = await loadPinCommand();
    if (action === 'status') return command.pinStatus({ store, config });
    return command.pinAccept({ store, config, namespace: values.namespace, tools, yes: values.yes === true });
  },
});
