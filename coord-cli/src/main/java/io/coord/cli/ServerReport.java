package io.coord.cli;

/**
 * What one ensemble member said about itself.
 *
 * @param address   {@code host:port} as given in the connect string
 * @param reachable whether a TCP connection to it succeeded
 * @param mode      {@code leader}, {@code follower}, {@code standalone}, ..., or null when unknown
 * @param version   the server's ZooKeeper version, or null when unknown
 * @param note      why mode or version are unknown, or why it is unreachable; null when all is known
 */
record ServerReport(String address, boolean reachable, String mode, String version, String note) {
    static ServerReport unreachable(String address, String why) {
        return new ServerReport(address, false, null, null, why);
    }
}
