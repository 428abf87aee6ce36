import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ts from 'typescript';

// triggersFor's promise is a compile-time one, so it is tested by compiling: index.ts as it is, then with a new game
// event that has no decision, then with a trigger paired with an event it is not typed over.
const INDEX = readFileSync(join(__dirname, 'index.ts'), 'utf8');
const PLANTED = join(__dirname, 'planted-index.ts');

let previous: ts.Program | undefined;

function compileErrors(source: string): string[] {
  const configPath = ts.findConfigFile(__dirname, ts.sys.fileExists, 'tsconfig.json')!;
  const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, dirname(configPath));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) =>
    name === PLANTED ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
  host.fileExists = (name) => name === PLANTED || ts.sys.fileExists(name);
  host.readFile = (name) => (name === PLANTED ? source : ts.sys.readFile(name));
  const program = ts.createProgram(
    [PLANTED],
    { ...options, noEmit: true, incremental: false, skipLibCheck: true },
    host,
    previous,
  );
  previous = program;
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(PLANTED))
    .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}

const plant = (from: string, to: string) => {
  expect(INDEX).toContain(from);
  return INDEX.replace(from, to);
};

describe('triggersFor decides every game event (checked by the compiler)', () => {
  it('compiles as it is', () => {
    expect(compileErrors(INDEX)).toEqual([]);
  }, 60_000);

  it('a new game event without a case does not compile: it reaches the never default', () => {
    const withNpcDied = plant(
      'export function triggersFor(e: GameEvent): Trigger[] {',
      "export function triggersFor(e: GameEvent | { type: 'NpcDied'; data: { npcId: string } }): Trigger[] {",
    );
    const errors = compileErrors(withNpcDied);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/NpcDied[\s\S]*not assignable to type 'never'/);
  }, 60_000);

  it('a trigger fired by an event it is not typed over does not compile', () => {
    const errors = compileErrors(plant('return fire(e, summary, revision);', 'return fire(e, location, revision);'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/not assignable/);
  }, 60_000);
});
