/**
 * Settings of the state machine's tasks (Step, Finalize), read and checked when a task's handler
 * module loads: a wrong value fails the init, naming the variable.
 */
import { loadFamilySettings } from '.';

loadFamilySettings('tasks');
