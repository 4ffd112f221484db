/*
 * Proxy-only network for tscodex-sandbox (--proxy-route PORT=SOCKPATH). The command runs in a
 * network namespace of its own where only `lo` is up, so direct TCP, UDP and DNS reach
 * nothing. Its one way out is 127.0.0.1:PORT, on which a small bridge process listens and
 * splices every connection to a fresh connect() on SOCKPATH, the managed proxy's unix listener
 * on the host (a unix socket works across network namespaces; a loopback port would not).
 *
 * The ports are bound and listening before the command is exec'd, so its first connect() is
 * queued rather than refused. The bridge reaches SOCKPATH through an O_PATH descriptor opened
 * before any mount (a deny rule or a layout without `/` may hide the path), connecting to
 * /proc/self/fd/N. It is forked after the mounts and the capability drop, before Landlock and
 * seccomp, is not dumpable (the command cannot ptrace it), ignores the signals sent to the
 * command's group and dies with its parent (PR_SET_PDEATHSIG; in a PID namespace it also dies
 * with the namespace). Memory is bounded: MAX_CONNECTIONS at most, two fixed buffers each;
 * beyond that new connections wait in the listen backlog.
 */
#define _GNU_SOURCE
#include "proxy-bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "contain.h"

#define MAX_CONNECTIONS 256
#define BUFFER_SIZE 16384

int proxy_route_parse(const char *arg, struct proxy_route *route) {
  char *end;
  long port = strtol(arg, &end, 10);
  if (end == arg || *end != '=' || port < 1 || port > 65535 || end[1] != '/') return -1;
  route->port = (int)port;
  route->socket_path = end + 1;
  route->socket_fd = -1;
  route->listen_fd = -1;
  return 0;
}

int loopback_up(void) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  int result = ioctl(fd, SIOCGIFFLAGS, &ifr);
  if (result == 0 && !(ifr.ifr_flags & IFF_UP)) {
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    result = ioctl(fd, SIOCSIFFLAGS, &ifr);
  }
  int saved = errno;
  close(fd);
  errno = saved;
  return result;
}

int enter_net_namespace(void) {
  if (unshare_as_self(CLONE_NEWNET) != 0) return -1;
  return loopback_up();
}

int proxy_routes_prepare(struct proxy_route *routes, int n) {
  for (int i = 0; i < n; i++) {
    struct proxy_route *route = &routes[i];
    route->socket_fd = open(route->socket_path, O_PATH | O_CLOEXEC);
    if (route->socket_fd < 0) {
      fprintf(stderr, "tscodex-sandbox: proxy route %s: %s\n", route->socket_path, strerror(errno));
      return -1;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int on = 1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)route->port),
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 128) != 0) {
      fprintf(stderr, "tscodex-sandbox: proxy route 127.0.0.1:%d: %s\n", route->port, strerror(errno));
      return -1;
    }
    route->listen_fd = fd;
  }
  return 0;
}

/* One spliced connection: `client` accepted on a port, `upstream` the unix socket. */
struct connection {
  int client, upstream;
  char up[BUFFER_SIZE], down[BUFFER_SIZE]; /* client→upstream, upstream→client */
  size_t up_len, up_off, down_len, down_off;
  int client_eof, upstream_eof;   /* read returned 0 */
  int client_shut, upstream_shut; /* we sent the EOF on (shutdown SHUT_WR) */
};

static int connect_upstream(const struct proxy_route *route) {
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  snprintf(addr.sun_path, sizeof addr.sun_path, "/proc/self/fd/%d", route->socket_fd);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0 && errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  return fd;
}

static void close_connection(struct connection **slot) {
  close((*slot)->client);
  close((*slot)->upstream);
  free(*slot);
  *slot = NULL;
}

/* Reads into an empty buffer; -1 on an error (the connection is dropped). */
static int fill(int fd, char *buffer, size_t *len, size_t *off, int *eof) {
  ssize_t got = read(fd, buffer, BUFFER_SIZE);
  if (got > 0) {
    *len = (size_t)got;
    *off = 0;
  } else if (got == 0) {
    *eof = 1;
  } else if (errno != EAGAIN && errno != EINTR) {
    return -1;
  }
  return 0;
}

static int drain(int fd, const char *buffer, size_t *len, size_t *off) {
  ssize_t sent = send(fd, buffer + *off, *len - *off, MSG_NOSIGNAL);
  if (sent < 0) return errno == EAGAIN || errno == EINTR ? 0 : -1;
  *off += (size_t)sent;
  if (*off == *len) *len = *off = 0;
  return 0;
}

/* Progress on one connection after poll; -1 when it is over (both halves closed, or an error). */
static int step(struct connection *c, short client_events, short upstream_events) {
  short ready_client = client_events, ready_upstream = upstream_events;
  if (ready_client & (POLLIN | POLLHUP | POLLERR) && !c->client_eof && c->up_len == 0 &&
      fill(c->client, c->up, &c->up_len, &c->up_off, &c->client_eof) != 0)
    return -1;
  if (ready_upstream & (POLLIN | POLLHUP | POLLERR) && !c->upstream_eof && c->down_len == 0 &&
      fill(c->upstream, c->down, &c->down_len, &c->down_off, &c->upstream_eof) != 0)
    return -1;
  if (c->up_len > 0 && drain(c->upstream, c->up, &c->up_len, &c->up_off) != 0) return -1;
  if (c->down_len > 0 && drain(c->client, c->down, &c->down_len, &c->down_off) != 0) return -1;
  /* Half-close: an EOF is passed on once everything before it was. */
  if (c->client_eof && c->up_len == 0 && !c->upstream_shut) {
    shutdown(c->upstream, SHUT_WR);
    c->upstream_shut = 1;
  }
  if (c->upstream_eof && c->down_len == 0 && !c->client_shut) {
    shutdown(c->client, SHUT_WR);
    c->client_shut = 1;
  }
  return c->client_shut && c->upstream_shut ? -1 : 0;
}

static short wanted(int eof, size_t in_len, size_t out_len) {
  short events = 0;
  if (!eof && in_len == 0) events |= POLLIN;
  if (out_len > 0) events |= POLLOUT;
  return events;
}

static _Noreturn void run_bridge(struct proxy_route *routes, int n) {
  static struct connection *connections[MAX_CONNECTIONS];
  static struct pollfd fds[MAX_PROXY_ROUTES + 2 * MAX_CONNECTIONS];
  for (;;) {
    int open_count = 0;
    for (int i = 0; i < MAX_CONNECTIONS; i++) open_count += connections[i] != NULL;
    /* At the cap, new connections wait in the backlog rather than grow our memory. */
    for (int r = 0; r < n; r++)
      fds[r] = (struct pollfd){.fd = open_count < MAX_CONNECTIONS ? routes[r].listen_fd : -1, .events = POLLIN};
    for (int i = 0; i < MAX_CONNECTIONS; i++) {
      struct connection *c = connections[i];
      struct pollfd *pair = &fds[n + 2 * i];
      pair[0] = (struct pollfd){.fd = -1};
      pair[1] = (struct pollfd){.fd = -1};
      if (!c) continue;
      short client = wanted(c->client_eof, c->up_len, c->down_len);
      short upstream = wanted(c->upstream_eof, c->down_len, c->up_len);
      pair[0] = (struct pollfd){.fd = client ? c->client : -1, .events = client};
      pair[1] = (struct pollfd){.fd = upstream ? c->upstream : -1, .events = upstream};
    }
    if (poll(fds, (nfds_t)(n + 2 * MAX_CONNECTIONS), -1) < 0) continue;
    for (int i = 0; i < MAX_CONNECTIONS; i++) {
      struct connection *c = connections[i];
      struct pollfd *pair = &fds[n + 2 * i];
      if (!c || !(pair[0].revents | pair[1].revents)) continue;
      if (step(c, pair[0].revents, pair[1].revents) != 0) close_connection(&connections[i]);
    }
    for (int r = 0; r < n; r++) {
      if (!(fds[r].revents & POLLIN)) continue;
      for (int i = 0; i < MAX_CONNECTIONS; i++) {
        if (connections[i]) continue;
        int client = accept4(routes[r].listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (client < 0) break;
        int upstream = connect_upstream(&routes[r]);
        struct connection *c = upstream < 0 ? NULL : calloc(1, sizeof *c);
        if (!c) {
          /* The proxy is gone or its backlog full: the client sees its connection closed. */
          close(client);
          if (upstream >= 0) close(upstream);
          continue;
        }
        c->client = client;
        c->upstream = upstream;
        connections[i] = c;
      }
    }
  }
}

int proxy_bridge_start(struct proxy_route *routes, int n) {
  if (n == 0) return 0;
  pid_t parent = getpid();
  pid_t bridge = fork();
  if (bridge < 0) return -1;
  if (bridge == 0) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) _exit(125);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    prctl(PR_SET_NAME, "tscodex-bridge", 0, 0, 0);
    /* Signals for the command's group (a ^C, the caller's SIGTERM) are not ours: we end with it. */
    const int ignored[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGTSTP,
                           SIGTTIN, SIGTTOU};
    for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++) signal(ignored[i], SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* The command's output is its own: its readers must not wait for us. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int fd = 0; fd < 3 && null >= 0; fd++) dup3(null, fd, 0);
    if (null > 2) close(null);
    run_bridge(routes, n);
  }
  for (int i = 0; i < n; i++) {
    close(routes[i].listen_fd);
    close(routes[i].socket_fd);
    routes[i].listen_fd = routes[i].socket_fd = -1;
  }
  return 0;
}
