export * from './errors.ts';
export * from './schemas.ts';
export * from './events.ts';
export * from './color.ts';
export * from './parse.ts';
