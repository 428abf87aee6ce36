import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './service-process';

const run = promisify(execFile);

/** No escape hatches in a walk-through: no `as` casts, no any, no non-null assertions on data, no ts-ignore. */
export const ESCAPE_HATCH = /\bas\s+(?!const\b)[A-Za-z{[(]|\bany\b|@ts-|\)!\./;

/**
 * A temp folder with the repository's node_modules, where a generator writes a client from the service's
 * OpenAPI document and a walk-through written against it is compiled by tsc and run.
 */
export function clientFolder(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return {
    dir,
    /** Runs a generator's CLI (a file under node_modules) in the folder. */
    generate: (cli: string, args: string[]) =>
      run(process.execPath, [join(REPO_ROOT, 'node_modules', cli), ...args], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1' },
      }),
    /** Copies test files into the folder. */
    copy: (...files: string[]) => files.forEach((f) => copyFileSync(f, join(dir, basename(f)))),
    /** tsc's output (empty when the walk-through compiles) under the given compiler options. */
    compile: async (walkthrough: string, options: Record<string, unknown>): Promise<string> => {
      const compilerOptions = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', ...options };
      const base = { lib: ['es2022', 'dom'], types: ['node'], skipLibCheck: true, outDir: 'out' };
      const tsconfig = { compilerOptions: { ...base, ...compilerOptions }, files: [basename(walkthrough)] };
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
      const tsc = await run(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
        cwd: dir,
      }).catch((err: { stdout: string }) => err);
      return tsc.stdout;
    },
    /** Runs the compiled walk-through and parses the one JSON line it prints. */
    runWalkthrough: async (walkthrough: string, args: string[], env: Record<string, string> = {}) => {
      const out = join(dir, 'out', basename(walkthrough).replace(/\.mts$/, '.mjs'));
      const { stdout } = await run(process.execPath, [out, ...args], { cwd: dir, env: { ...process.env, ...env } });
      return JSON.parse(stdout) as Record<string, unknown>;
    },
    read: (file: string) => readFileSync(join(dir, file), 'utf8'),
    write: (file: string, text: string) => writeFileSync(join(dir, file), text),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
