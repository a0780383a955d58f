package io.coord.election;

import io.coord.CoordPath;
import io.coord.FencingToken;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One candidate of an election, as read from its node: a Coord candidate, or a Curator
 * {@code LeaderLatch}/{@code LeaderSelector} one sharing the election (see {@link CuratorLayout}).
 *
 * @param id       the participant id it joined with; for a Curator candidate, its node's data as
 *                 text (Curator's participant id; may be empty, or the client's address)
 * @param metadata the metadata it joined with (none for a Curator candidate)
 * @param token    czxid and path of its candidate node. For a Coord candidate this is the epoch it
 *                 leads with; a Curator candidate has no epoch (it fences with nothing), see
 *                 {@link #epoch()}
 * @param joinedAt when its node was created (server clock)
 * @param library  whose candidate it is
 */
public record Participant(String id, Map<String, String> metadata, FencingToken token, Instant joinedAt, Library library) {
    /** Whose candidate a node is, told by its data (Coord's is JSON, Curator's the bare id). */
    public enum Library { COORD, CURATOR }

    public Participant {
        Objects.requireNonNull(library, "library");
        if (library == Library.COORD) {
            CoordPath.validateName(id);
        } else {
            Objects.requireNonNull(id, "id");
        }
        metadata = Map.copyOf(Objects.requireNonNull(metadata, "metadata"));
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(joinedAt, "joinedAt");
    }

    /** A Coord candidate. */
    public Participant(String id, Map<String, String> metadata, FencingToken token, Instant joinedAt) {
        this(id, metadata, token, joinedAt, Library.COORD);
    }

    /** The path of its candidate node. */
    public CoordPath node() {
        return token.node();
    }

    /** The epoch it leads with: its token for a Coord candidate, empty for a Curator one. */
    public Optional<FencingToken> epoch() {
        return library == Library.COORD ? Optional.of(token) : Optional.empty();
    }
}
