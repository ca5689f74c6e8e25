#define _GNU_SOURCE
#include "CEpoll.h"
#include <arpa/inet.h>
#include <string.h>

int cepoll_ctl(int epfd, int op, int fd, uint32_t events) {
  struct epoll_event ev;
  memset(&ev, 0, sizeof(ev));
  ev.events = events;
  ev.data.fd = fd;
  return epoll_ctl(epfd, op, fd, &ev);
}

int cepoll_wait(int epfd, cepoll_event *events, int maxevents, int timeout_ms) {
  struct epoll_event raw[256];
  if (maxevents > 256) maxevents = 256;
  int n = epoll_wait(epfd, raw, maxevents, timeout_ms);
  for (int i = 0; i < n; i++) {
    events[i].events = raw[i].events;
    events[i].fd = raw[i].data.fd;
  }
  return n;
}

int cepoll_accept(int fd, char *addr, int addrlen) {
  struct sockaddr_storage ss;
  socklen_t len = sizeof(ss);
  int c = accept4(fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (c < 0) return c;
  if (addrlen > 0) addr[0] = 0;
  if (ss.ss_family == AF_INET) {
    inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, addrlen);
  } else if (ss.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, addrlen);
  }
  return c;
}

int cepoll_set_nodelay(int fd) {
  int one = 1;
  return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int cepoll_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
