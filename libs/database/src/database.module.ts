import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createDataSource, DataSourceSpec } from './data-source';
import { Database, DATABASE } from './database';
import { runMigrations } from './run-migrations';
import { WalCheckpointer } from './wal-checkpointer';

/** Closes the database after the worker stopped, so a restart (or another process) finds a clean file. */
@Injectable()
export class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    @Inject(WalCheckpointer) private readonly checkpointer: WalCheckpointer | null,
  ) {}
  async onApplicationShutdown(): Promise<void> {
    await this.checkpointer?.stop();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}

/** §13: a SQLite file's checkpoints run in a thread of their own, off the event loop (none in memory or PostgreSQL). */
async function checkpointerOf(spec: DataSourceSpec, ds: DataSource): Promise<WalCheckpointer | null> {
  if (spec.database.type !== 'sqlite' || spec.database.path === ':memory:') return null;
  await ds.query('PRAGMA wal_autocheckpoint = 0');
  return new WalCheckpointer(spec.database.path);
}

/** The DataSource (migrated at boot) and `Database` over it; the app passes every lib's entities and migrations. */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(spec: DataSourceSpec): DynamicModule {
    const dataSource = {
      provide: DataSource,
      useFactory: async () => {
        const ds = createDataSource(spec);
        await ds.initialize();
        await runMigrations(ds);
        return ds;
      },
    };
    return {
      module: DatabaseModule,
      providers: [
        dataSource,
        { provide: DATABASE, useFactory: (ds: DataSource) => new Database(ds), inject: [DataSource] },
        { provide: WalCheckpointer, useFactory: (ds: DataSource) => checkpointerOf(spec, ds), inject: [DataSource] },
        DatabaseLifecycle,
      ],
      exports: [DataSource, DATABASE],
    };
  }
}
