package io.coord.naming;

import io.coord.FencingToken;
import io.coord.Lease;
import java.util.Optional;

/**
 * A unique name this client holds, from {@link UniqueNames#claim} or
 * {@link UniqueNames#claimPersistent}. {@link #close()} releases it: it deletes the name's owner
 * node only if that node is still this claim's own (same claim id, and for an ephemeral claim the
 * same session), never "whatever holds that name now".
 *
 * <ul>
 *   <li>Ephemeral: bound to the session that claimed it, with the shared {@link Lease} state
 *       machine ({@link #lease()}): SUSPENDED makes it UNCERTAIN, session expiry makes it LOST and
 *       the name free for others.</li>
 *   <li>Persistent: survives the session and the process; {@link #lease()} is empty. Drop the
 *       handle without closing it to keep the name, and release it later with
 *       {@link UniqueNames#release}.</li>
 * </ul>
 */
public interface NameClaim extends AutoCloseable {
    /** The claimed name. */
    String name();

    /** The owner identity recorded with the claim. */
    String owner();

    boolean persistent();

    /** The czxid of the name's owner node (and its path): higher for every later claim of any name. */
    FencingToken token();

    /** The lease of an ephemeral claim; empty for a persistent one. */
    Optional<Lease> lease();

    /** Releases the claim (see the class comment). Idempotent; never deletes another claimant's node. */
    @Override
    void close();
}
