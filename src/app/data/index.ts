/**
 * The lab's data layer in one import: the BEIR catalog and hub URLs, downloads with progress, loading
 * files into a validated collection, and the IndexedDB collection store.
 */
export * from './types.ts';
export { BEIR_CATALOG, DEFAULT_HUB_BASE, LAYOUT_ORDER, catalogEntry, catalogId, corpusRepoUrl, qrelsUrl, type CatalogEntry, type HubLayout } from './catalog.ts';
export { fetchCatalogCollection, fetchWithProgress, HttpError, type CatalogFetchOptions, type FetchOptions } from './fetch.ts';
export { loadCollection, ACCEPTED_CORPUS, ACCEPTED_QUERIES, type LoadOptions } from './load.ts';
export { classifyFiles, expandArchives, type ClassifiedFile, type FileRole } from './files.ts';
export { CollectionStore, DEFAULT_COLLECTIONS_DB, collectionMeta, uploadId } from './collection-store.ts';
