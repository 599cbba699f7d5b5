/**
 * Every storage contract over every adapter: the embedded SQLite store and PostgreSQL (each
 * suite in a database of its own, dropped afterwards). An adapter passes exactly the same tests.
 */
import { runStorageContract } from './storage-contract.ts';
import { runBulkStorageContract } from './storage-contract-bulk.ts';
import { runCrawlStorageContract } from './storage-contract-crawl.ts';
import { runCustomApiStoreContract } from './storage-contract-extract.ts';
import { HOST_TURN_ADAPTERS, runHostTurnStoreContract } from './storage-contract-host-turns.ts';
import { runKgImportStorageContract } from './storage-contract-kg-import.ts';
import { runMatchStoreContract } from './storage-contract-match.ts';
import { runOriginFetchStoreContract } from './storage-contract-refresh.ts';
import { STORE_ADAPTERS } from './support/store-adapters.ts';

for (const adapter of STORE_ADAPTERS) {
  runStorageContract(adapter.name, adapter.open);
  runCustomApiStoreContract(adapter.name, adapter.open);
  runKgImportStorageContract(adapter.name, adapter.open);
  runMatchStoreContract(adapter.name, adapter.open);
  runOriginFetchStoreContract(adapter.name, adapter.open);
  runBulkStorageContract(adapter.name, adapter.open);
  runCrawlStorageContract(adapter.name, adapter.open, adapter.openPair);
}

// Turns of hosts: a store one process uses keeps them in memory (`Storage.hostTurns` undefined).
for (const adapter of HOST_TURN_ADAPTERS) runHostTurnStoreContract(adapter.name, adapter.open);
