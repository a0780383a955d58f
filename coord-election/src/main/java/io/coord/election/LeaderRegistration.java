package io.coord.election;

import io.coord.Registration;
import java.util.Optional;

/**
 * The registration of a Curator-shaped listener ({@link Election#lead(
 * org.apache.curator.framework.recipes.leader.LeaderLatchListener, java.util.concurrent.Executor)}
 * and its {@code LeaderSelectorListener} sibling): Curator's callbacks carry no epoch, so the
 * leadership they stand for is reachable here, for fencing ({@link Leadership#epoch()}) and for
 * the loss signal ({@link Leadership#addListener}, {@link Leadership#checkValid()}).
 */
public interface LeaderRegistration extends Registration {
    /** The leadership while this candidate leads (set before the listener hears of it); empty otherwise. */
    Optional<Leadership> leadership();

    /** Stops: interrupts a running {@code takeLeadership}, resigns, withdraws. Idempotent. */
    @Override
    void close();
}
