#!/usr/bin/env node
/**
 * `lorekeeper [command]`, the package's bin (DESIGN §14): `npx lorekeeper` starts the service in the working
 * directory (SQLite file, offline summarizer, no keys). Only node built-ins load before a command is chosen,
 * so `--help` is instant and `start` keeps main.ts's boot cache first in line.
 */
import { readFileSync } from 'node:fs';
import { packageFile } from './package-files';

interface Command {
  summary: string;
  run(args: string[]): Promise<void>;
}

/** The subcommands, in the order --help lists them; each loads its module only when chosen. */
export const COMMANDS: Record<string, Command> = {
  start: {
    summary: 'start the service (the default): HTTP API, /docs, /inspector',
    run: async () => (await import('./main')).main(),
  },
  export: {
    summary: 'export --out <file.ndjson>: every campaign of DATABASE_URL to one file (DESIGN §15)',
    run: async (args) => {
      process.exitCode = await (await import('./transfer/transfer.cli')).exportCommand(args);
    },
  },
  import: {
    summary: 'import <file.ndjson>: every campaign of an export into DATABASE_URL, checked first (DESIGN §15)',
    run: async (args) => {
      process.exitCode = await (await import('./transfer/transfer.cli')).importCommand(args);
    },
  },
};

export async function runCli(argv: string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h' || first === 'help') return void process.stdout.write(helpText());
  if (first === '--version' || first === '-v') return void process.stdout.write(`${packageVersion()}\n`);
  const name = first === undefined || first.startsWith('-') ? 'start' : first;
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`lorekeeper: unknown command "${name}"; try lorekeeper --help\n`);
    process.exit(2);
  }
  await command.run(first === name ? rest : argv);
}

/** Usage, the commands, and every setting of docs/configuration.md (its table, as aligned lines). */
export function helpText(): string {
  const commands = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`);
  const rows = configurationRows();
  const width = Math.max(...rows.map((r) => r.name.length));
  const settings = rows.map(
    (r) => `  ${r.name.padEnd(width)}  ${r.meaning}${r.default ? ` [default: ${r.default}]` : ''}`,
  );
  return [
    `lorekeeper ${packageVersion()} — event-sourced narrative memory for AI game masters and game-playing agents`,
    '',
    'Usage: lorekeeper [command] [--help] [--version]',
    '',
    'Commands:',
    ...commands,
    '',
    'Configuration (environment variables, validated at start; docs/configuration.md):',
    ...settings,
    '',
    'Without settings it listens on port 3000, keeps its SQLite file in ./data/lorekeeper.db and summarizes',
    'offline (no key). API docs at /docs, the inspector at /inspector.',
    '',
  ].join('\n');
}

interface Row {
  name: string;
  default: string;
  meaning: string;
}

/** The rows of the table in docs/configuration.md, markdown left out (backticks, links). */
export function configurationRows(markdown = readFileSync(packageFile('docs/configuration.md'), 'utf8')): Row[] {
  const plain = (cell: string) =>
    cell
      .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
      .replace(/`/g, '')
      .replace(/\\\|/g, '|')
      .trim();
  return markdown
    .split('\n')
    .filter((line) => /^\| `[A-Z][A-Z0-9_]*` \|/.test(line))
    .map((line) => {
      const [name = '', def = '', ...meaning] = line.slice(1, -1).split(/(?<!\\)\|/);
      const d = plain(def);
      return {
        name: plain(name),
        default: d === '–' || d === '—' || d === '-' ? '' : d,
        meaning: plain(meaning.join('|')),
      };
    });
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
}

if (require.main === module) {
  runCli(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`lorekeeper: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
