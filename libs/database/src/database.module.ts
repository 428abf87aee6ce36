import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { createDataSource, DataSourceSpec } from './data-source';
import { Database, DATABASE } from './database';
import { runMigrations } from './run-migrations';

/** Closes the database after the worker stopped, so a restart (or another process) finds a clean file. */
@Injectable()
export class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}
  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
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
        DatabaseLifecycle,
      ],
      exports: [DataSource, DATABASE],
    };
  }
}
