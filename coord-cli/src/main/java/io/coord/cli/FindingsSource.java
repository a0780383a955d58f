package io.coord.cli;

import io.coord.CoordClient;
import io.coord.cli.doctor.Doctor;
import io.coord.cli.doctor.DoctorOptions;
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

    /** {@code coord doctor}'s checks with their default thresholds, on the console's client. */
    static FindingsSource doctor(CoordClient client) {
        Doctor doctor = Doctor.of(client, DoctorOptions.defaults());
        return doctor::run;
    }

    /** One read-only pass; may take as long as the doctor's own pass does. */
    List<Finding> findings() throws Exception;
}
