package io.coord.election;

import io.coord.CoordPath;
import io.coord.FencingToken;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * One candidate of an election, as read from its node.
 *
 * @param id       the participant id it joined with
 * @param metadata the metadata it joined with
 * @param token    czxid and path of its candidate node: the epoch it leads with, if it leads
 * @param joinedAt when its node was created (server clock)
 */
public record Participant(String id, Map<String, String> metadata, FencingToken token, Instant joinedAt) {
    public Participant {
        CoordPath.validateName(id);
        metadata = Map.copyOf(Objects.requireNonNull(metadata, "metadata"));
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(joinedAt, "joinedAt");
    }

    /** The path of its candidate node. */
    public CoordPath node() {
        return token.node();
    }
}
