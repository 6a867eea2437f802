export * from './types';
export * from './errors';
export * from './contract';
