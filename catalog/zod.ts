/**
 * zod for the wire schemas: `zod/mini`, whose functions tree-shake, so that a route's bundle carries
 * only the parts of zod its own schemas use (the classic API cannot be shaken and weighs about
 * 100 KB minified, 450 KB imported as `{ z }`, in every bundle). Classic zod sets its English
 * messages by itself; mini does not, so they are set here, and the messages stay the same.
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';
