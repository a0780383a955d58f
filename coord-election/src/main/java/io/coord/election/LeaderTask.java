package io.coord.election;

/**
 * Work that runs while this candidate leads; see {@link Election#lead}.
 *
 * <p>The task runs on a thread the election owns. It is <b>interrupted</b> the moment the
 * leadership becomes UNCERTAIN (connection SUSPENDED, process stall), LOST, or is resigned or
 * closed: it must then stop promptly and start no new protected work. Returning (or throwing)
 * ends this leadership: the election resigns it, so the next candidate takes over at once.
 * Protect each external write with {@link Leadership#checkValid()} and the epoch (a
 * {@link io.coord.fence.FenceGuard} or a guarded ZooKeeper write): an interrupt tells the task to
 * stop, the fence makes sure a task that did not stop in time cannot do harm.
 */
@FunctionalInterface
public interface LeaderTask {
    /**
     * Leads until done, or until interrupted.
     *
     * @throws InterruptedException when interrupted; this is the normal way a leadership ends
     */
    void lead(Leadership leadership) throws InterruptedException;
}
