/* Proxy-only network of tscodex-sandbox: see proxy-bridge.c. */
#ifndef TSCODEX_PROXY_BRIDGE_H
#define TSCODEX_PROXY_BRIDGE_H

#define MAX_PROXY_ROUTES 16

/* One --proxy-route PORT=SOCKPATH: 127.0.0.1:PORT in our namespace leads to SOCKPATH on the host. */
struct proxy_route {
  int port;
  const char *socket_path;
  int socket_fd;   /* O_PATH on SOCKPATH, opened before any mount hides it */
  int listen_fd;   /* the bound, listening TCP socket */
};

/* Parses "PORT=SOCKPATH"; -1 when malformed. */
int proxy_route_parse(const char *arg, struct proxy_route *route);

/*
 * A new network namespace (through a user namespace when not privileged) with `lo` up and
 * nothing else: no way out but the routes. -1 with errno set when the kernel will not.
 */
int enter_net_namespace(void);

/* Brings `lo` up in the current network namespace (SIOCSIFFLAGS). */
int loopback_up(void);

/*
 * Opens every route's unix socket (O_PATH) and binds and listens on its loopback port, so
 * that a connection the command makes right after exec is queued, never refused. Call inside
 * the command's network namespace, before mounts change what the paths lead to. -1 with a
 * message printed on failure.
 */
int proxy_routes_prepare(struct proxy_route *routes, int n);

/*
 * Forks the bridge: a process that accepts on every route's port and splices each connection
 * to a fresh connect() on the route's unix socket. It dies with us (PR_SET_PDEATHSIG) and is
 * not dumpable; call after the mounts and the capability drop, before Landlock and seccomp
 * (which would forbid its connect). Closes the routes' descriptors in the caller.
 */
int proxy_bridge_start(struct proxy_route *routes, int n);

#endif
