/** `sbkit model`: prints the model's state machines as Mermaid diagrams (paste into any Mermaid renderer). */
import { optional, stringFlag, switchFlag } from '../args.ts';
import { type Command, EXIT, usageError, withArgs } from '../command.ts';
import { loadDiagrams } from '../diagrams.ts';

const USAGE = 'sbkit model';

export const MODEL_FLAGS = {
  machine: optional(stringFlag({ help: 'print only this machine (see --list)', placeholder: 'NAME', defaultValue: '' }), 'all'),
  list: switchFlag('list the machines and exit'),
  mermaid: switchFlag('print Mermaid stateDiagram-v2 source (the only format, and the default)'),
} as const;

const HELP = {
  usage: USAGE,
  summary:
    "Prints the model's state machines (model/) as Mermaid diagrams, each under a `%% name` line.\n" +
    'Render them with any Mermaid viewer (a Markdown preview, mermaid.live); the report embeds them too.',
};

export const modelCommand: Command = {
  name: 'model',
  summary: "print the model's state machines as Mermaid diagrams",
  run: (argv, io) =>
    withArgs(HELP, MODEL_FLAGS, argv, io, async (v) => {
      const d = await loadDiagrams();
      if (d.kind === 'unavailable') {
        io.err(`${USAGE}: ${d.reason}\n`);
        return EXIT.internal;
      }
      if (v.list) {
        io.out(`${d.diagrams.map((x) => x.name).join('\n')}\n`);
        return EXIT.ok;
      }
      const chosen = v.machine === undefined ? d.diagrams : d.diagrams.filter((x) => x.name === v.machine);
      if (chosen.length === 0) {
        return usageError(io, USAGE, `--machine: no machine named ${JSON.stringify(v.machine)}; known: ${d.diagrams.map((x) => x.name).join(', ')}`);
      }
      io.out(chosen.map((x) => `%% ${x.name}\n${x.mermaid.trimEnd()}\n`).join('\n'));
      return EXIT.ok;
    }),
};
