package io.coord.barrier;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.internal.Zk;
import java.time.Duration;
import java.util.Objects;

/**
 * A simple gate ("wait until released"), like Curator's {@code DistributedBarrier}: someone
 * {@link #set()}s it, any number of processes {@link #await} it, and {@link #remove()} lets them
 * all through. The gate is the persistent node {@code /gates/{name}}; set means it exists. It
 * stays set when its setter dies: it is a decision, not a lease.
 *
 * <p>{@link #await} returns true only after a read shows the node gone: watch events, connection
 * flaps and spurious wake-ups only cause another read. SUSPENDED: it keeps waiting and reads
 * again after the reconnect. Interrupt: {@link InterruptedException}, the gate unchanged.
 */
public interface Gate {
    /**
     * The gate {@code name}.
     *
     * @throws io.coord.InvalidNameException if {@code name} is not one valid path segment
     */
    static Gate create(CoordClient client, String name) {
        Objects.requireNonNull(client, "client");
        CoordPath.validateName(name);
        return new ZkGate(Zk.of(client), name);
    }

    String name();

    /** Sets (closes) the gate; returns false if it was already set. */
    boolean set() throws InterruptedException;

    /** Removes (opens) the gate, releasing every waiter; returns false if it was not set. */
    boolean remove() throws InterruptedException;

    /** Whether the gate is set right now. */
    boolean isSet() throws InterruptedException;

    /**
     * Waits until the gate is not set, at most {@code timeout}: true once a read shows the gate
     * node absent (at once if it is not set), false if {@code timeout} passed first. Connection
     * trouble that lasts past the timeout also ends the wait with false; the gate's state is then
     * unknown to this caller.
     */
    boolean await(Duration timeout) throws InterruptedException;
}
