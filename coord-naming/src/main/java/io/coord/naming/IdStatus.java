package io.coord.naming;

import io.coord.CoordClient;
import io.coord.internal.Zk;
import java.util.List;

/**
 * What inspection ({@code coord ids show}) reports about one ID name: the nodes under
 * {@code /ids/{name}} that are not Coord's, each as {@code "{path}: {why}"} (a Curator counter's
 * bytes, named with the value Curator reads from them, or a child neither generator uses). A
 * generator refuses to write beside the first kind ({@link io.coord.ForeignNodesException}) and
 * logs the second at WARN once; this lists both every time it is asked.
 *
 * @param name    the ID name
 * @param foreign the nodes that are not Coord's, sorted by path; empty if all are (or there are none)
 */
public record IdStatus(String name, List<String> foreign) {
    public IdStatus {
        foreign = List.copyOf(foreign);
    }

    /** Reads the nodes of ID name {@code name} (one path segment) now; writes nothing. */
    public static IdStatus read(CoordClient client, String name) throws InterruptedException {
        return new IdStatus(name, IdNodes.foreign(Zk.of(client), name));
    }
}
