/** What every suite receives: `quick` trims sizes and durations for the CI smoke run. */
export interface BenchOptions {
  quick: boolean;
  /** Profile the service (`node --cpu-prof`) where a suite knows how. */
  profile?: boolean;
}

/** A suite's figures: scalars, arrays of flat rows (printed as tables) and `notes` lines. */
export type Figures = Record<string, unknown>;

/** One entry of the registry in bench/suites.ts. */
export interface BenchSuite {
  name: string;
  title: string;
  run(options: BenchOptions): Promise<Figures>;
}
