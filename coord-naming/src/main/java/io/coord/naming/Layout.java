package io.coord.naming;

import io.coord.CoordPath;

/** Every node name this module uses, in one place (see the layout in {@code package-info}). */
final class Layout {
    /** Parent of every ID name: {@code /ids/{name}/sequence} and {@code /ids/{name}/blocks}. */
    static final CoordPath IDS = CoordPath.of("/ids");
    static final String SEQUENCE = "sequence";
    static final String BLOCKS = "blocks";

    /** Parent of every unique name: {@code /names/{name}/owner} and the claimant's lease node beside it. */
    static final CoordPath NAMES = CoordPath.of("/names");
    static final String OWNER = "owner";
    static final String LEASE = "lease";

    /** Default root of discovery: {@code orders.payments.prod} is {@code /services/prod/payments/orders}. */
    static final CoordPath SERVICES = CoordPath.of("/services");
    /** The child of a service node that holds its instances; not a DNS label, so it never collides with one. */
    static final String INSTANCES = "_instances";

    private Layout() {
    }

    static CoordPath sequenceNode(String name) {
        return IDS.child(CoordPath.validateName(name)).child(SEQUENCE);
    }

    static CoordPath blockNode(String name) {
        return IDS.child(CoordPath.validateName(name)).child(BLOCKS);
    }

    static CoordPath nameNode(String name) {
        return NAMES.child(CoordPath.validateName(name));
    }
}
