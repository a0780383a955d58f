package io.coord.cli;

import io.coord.cli.doctor.Finding;
import java.util.List;

/**
 * Where the web console's findings page gets its findings: {@code coord doctor}'s checks, run
 * again at each poll. A separate seam so that the console does not depend on how the doctor is
 * built, and so that a test can hand it findings of its own.
 */
@FunctionalInterface
interface FindingsSource {
    /** No checks: an empty list (the console says that no doctor is wired in). */
    FindingsSource NONE = List::of;

    /** One read-only pass; may take as long as the doctor's own pass does. */
    List<Finding> findings() throws Exception;
}
