package io.coord.cli.doctor;

import io.coord.CoordPath;
import io.coord.barrier.BarrierStatus;
import io.coord.barrier.DoubleBarrier;
import io.coord.cli.doctor.Finding.Severity;
import java.util.List;

/**
 * Every barrier under {@code /barriers}, through {@link DoubleBarrier#status}: a broken generation
 * (ERROR, with the failed members and why), and a generation still waiting to enter or to leave
 * after {@link DoctorOptions#barrierWait()} (WARNING, with who is missing; members that never
 * arrived have no name yet and are counted).
 */
final class BarrierCheck implements Check {
    static final CoordPath ROOT = CoordPath.of("/barriers");

    @Override
    public String name() {
        return "barrier";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        for (String name : scan.children(ROOT)) {
            BarrierStatus s = DoubleBarrier.status(scan.client, name);
            String path = ROOT.child(name).value();
            if (!s.exists()) {
                continue;
            }
            if (s.broken()) {
                findings.add(new Finding(Severity.ERROR, "barrier.broken", path, "generation " + s.generation() + " broke during "
                        + (s.brokenIn() == BarrierStatus.Phase.OPEN ? "enter" : "leave") + ": " + s.reason()
                        + (s.missing().isEmpty() ? "" : "; missing " + String.join(", ", s.missing())),
                        "members arriving now fail at once: fix the missing members, then coord barrier reset " + name));
            } else if (s.waitingFor() > 0 && s.since() != null && scan.age(s.since()).compareTo(scan.options.barrierWait()) > 0) {
                findings.add(new Finding(Severity.WARNING, "barrier.waiting", path, "generation " + s.generation() + " "
                        + s.phase() + " for " + Scan.human(scan.age(s.since())) + ", waiting for " + s.waitingFor() + " of "
                        + s.parties() + (s.missing().isEmpty() ? " (not arrived yet, no names)" : ": missing " + String.join(", ", s.missing())),
                        "the members that are there wait until their timeout breaks it: start the missing members or stop the others"));
            }
        }
    }
}
