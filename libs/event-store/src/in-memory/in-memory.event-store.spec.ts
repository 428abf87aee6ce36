import { eventStoreContract } from '../event-store.contract';
import { InMemoryEventStore } from './in-memory.event-store';

eventStoreContract('in-memory fake', async () => ({ store: new InMemoryEventStore(), close: async () => undefined }));
