import { exportCommand, importCommand } from '../apps/memory-service/src/transfer/transfer.cli';

/**
 * DESIGN §15 for whole databases, each against its DATABASE_URL (the `lorekeeper export|import` commands run these):
 *   node dist/scripts/transfer.js export --out backup.ndjson
 *   node dist/scripts/transfer.js import backup.ndjson
 */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'export') return exportCommand(rest);
  if (command === 'import') return importCommand(rest);
  console.error('usage: transfer export --out <file.ndjson> | transfer import <file.ndjson>');
  return 2;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
