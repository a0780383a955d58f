package io.coord;

import java.util.ArrayList;
import java.util.List;

/** Parses and validates {@code host:port[,host:port...][/chroot]}; package-private helper of the settings. */
record ConnectString(List<String> hosts, String chroot) {

    static ConnectString parse(String value) {
        if (value == null || value.isBlank()) {
            throw new ConfigurationException("connectString is empty; expected host:port[,host:port...][/chroot]");
        }
        String hostPart = value;
        String chroot = null;
        int slash = value.indexOf('/');
        if (slash >= 0) {
            hostPart = value.substring(0, slash);
            chroot = value.substring(slash);
            try {
                CoordPath.of(chroot);
            } catch (InvalidPathException e) {
                throw new ConfigurationException("connectString " + CoordPath.quote(value) + " has a bad chroot: " + e.getMessage(), e);
            }
        }
        List<String> hosts = new ArrayList<>();
        for (String hostPort : hostPart.split(",", -1)) {
            String hp = hostPort.trim();
            int colon = hp.lastIndexOf(':');
            if (hp.isEmpty() || colon <= 0 || colon == hp.length() - 1) {
                throw new ConfigurationException("connectString " + CoordPath.quote(value) + ": entry " + CoordPath.quote(hp)
                        + " is not host:port");
            }
            int port;
            try {
                port = Integer.parseInt(hp.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new ConfigurationException("connectString " + CoordPath.quote(value) + ": port in " + CoordPath.quote(hp)
                        + " is not a number");
            }
            if (port < 1 || port > 65535) {
                throw new ConfigurationException("connectString " + CoordPath.quote(value) + ": port " + port + " is outside 1..65535");
            }
            hosts.add(hp);
        }
        return new ConnectString(List.copyOf(hosts), chroot);
    }
}
