/**
 * What explore/ needs to know about a gallery bug beyond its description (impl/bugs.ts): the variants on
 * which it can show and whether only the fault world shows it. The one place explore/ reads those
 * mappings, so that where they live can change in one line.
 */
import { BUG_VARIANTS } from '../conformance/check.ts';
import { FAULT_BUGS, type BugName, type Variant } from '../vocab/index.ts';

/** The variants on which `bug` can show (a barrier bug cannot show without a barrier). */
export const bugVariants = (bug: BugName): readonly Variant[] => BUG_VARIANTS[bug];

/** Whether `bug` shows only when storage fails or replicas are aborted (`sbkit check --faults`). */
export const bugNeedsFaults = (bug: BugName): boolean => FAULT_BUGS.includes(bug);
