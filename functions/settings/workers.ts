/**
 * Settings of the queue and event workers (jobs, notifications, dead letters, run ends), read and
 * checked when a worker's handler module loads: a wrong value fails the init, naming the variable.
 */
import { loadFamilySettings } from '.';

loadFamilySettings('workers');
