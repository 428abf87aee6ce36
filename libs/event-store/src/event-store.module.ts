import { Database, DATABASE } from '@app/database';
import { Global, Module } from '@nestjs/common';
import { EVENT_STORE } from './event-store.port';
import { TypeOrmEventStore } from './typeorm/typeorm.event-store';

/** The event store port, backed by the events table. */
@Global()
@Module({
  providers: [{ provide: EVENT_STORE, useFactory: (db: Database) => new TypeOrmEventStore(db), inject: [DATABASE] }],
  exports: [EVENT_STORE],
})
export class EventStoreModule {}
