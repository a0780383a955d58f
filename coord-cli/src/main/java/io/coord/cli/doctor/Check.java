package io.coord.cli.doctor;

import java.util.List;

/** One of the doctor's checks: reads, never writes, and adds what it found. */
interface Check {
    /** The check's name, used when it cannot run at all. */
    String name();

    void run(Scan scan, List<Finding> findings) throws InterruptedException;
}
