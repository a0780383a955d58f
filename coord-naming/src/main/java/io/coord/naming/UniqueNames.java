package io.coord.naming;

import io.coord.CoordClient;
import io.coord.internal.Zk;
import java.util.Optional;

/**
 * Names that exactly one claimant holds at a time: a printer, a shard, a host alias. A claim
 * creates the name's owner node, and ZooKeeper lets exactly one create of a path succeed; every
 * other claimant gets {@link NameTakenException} naming the owner.
 *
 * <pre>{@code
 * UniqueNames names = UniqueNames.open(client, "worker-7@host-a");
 * try (NameClaim claim = names.claim("printer-3")) {       // ephemeral: dies with the session
 *     claim.lease().orElseThrow().checkValid();
 * } catch (NameTakenException taken) {
 *     log.info("printer-3 belongs to {}", taken.owner());
 * }
 * }</pre>
 *
 * <p>Thread-safe; holds no resources of its own (each {@link NameClaim} holds its own).
 */
public interface UniqueNames {
    /**
     * Claims names as {@code owner} (how others will see this claimant: a host, a pid, a service
     * instance; 1..255 characters). No I/O happens here.
     */
    static UniqueNames open(CoordClient client, String owner) {
        return new ZkUniqueNames(Zk.of(client), owner);
    }

    /** The owner identity this object claims as. */
    String ownerId();

    /**
     * Claims {@code name} (one path segment) for this client's current session: released by
     * {@link NameClaim#close()} or when the session ends.
     *
     * @throws NameTakenException if someone holds it (even this same owner, through another claim)
     * @throws io.coord.ConnectionLostException if the connection dropped before the answer; the
     *         claim did not happen (a half-made claim is cleaned up or dies with the session)
     * @throws InterruptedException if interrupted; nothing is left claimed
     */
    NameClaim claim(String name) throws InterruptedException;

    /**
     * Claims {@code name} until it is released: by {@link NameClaim#close()}, or later by
     * {@link #release} from any client with the same owner identity.
     *
     * @throws NameTakenException if someone holds it
     */
    NameClaim claimPersistent(String name) throws InterruptedException;

    /** The current owner of {@code name}, if it is claimed (one round trip). */
    Optional<String> owner(String name) throws InterruptedException;

    /**
     * Releases a persistent claim of {@code name} held by this owner identity, for example one made
     * by an earlier run of this process. Returns false if the name is not claimed, is claimed by
     * another owner, or is claimed ephemerally (close that claim's handle instead).
     */
    boolean release(String name) throws InterruptedException;
}
