/**
 * Settings of the route functions, read and checked when a route's handler module loads (its cold
 * start): a wrong value fails the init, naming the variable, rather than a user's request.
 */
import { loadFamilySettings } from '.';

loadFamilySettings('routes');
