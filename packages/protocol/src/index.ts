export * from './errors.ts';
export * from './primitives.ts';
export * from './schemas.ts';
export * from './elements.ts';
export * from './events.ts';
export * from './color.ts';
export * from './parse.ts';
export * from './attendanceReport.ts';
