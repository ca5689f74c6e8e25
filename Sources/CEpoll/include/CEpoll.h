#ifndef CEPOLL_H
#define CEPOLL_H
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

/// An unpacked epoll event (the kernel struct is packed on x86_64, which Swift imports awkwardly).
typedef struct {
  uint32_t events;
  int32_t fd;
} cepoll_event;

static const uint32_t CEPOLL_IN = EPOLLIN;
static const uint32_t CEPOLL_OUT = EPOLLOUT;
static const uint32_t CEPOLL_ERR = EPOLLERR;
static const uint32_t CEPOLL_HUP = EPOLLHUP;
static const uint32_t CEPOLL_RDHUP = EPOLLRDHUP;
static const uint32_t CEPOLL_EXCLUSIVE = EPOLLEXCLUSIVE;

/// epoll_ctl with the fd as the event's user data.
int cepoll_ctl(int epfd, int op, int fd, uint32_t events);
/// epoll_wait that copies into unpacked events.
int cepoll_wait(int epfd, cepoll_event *events, int maxevents, int timeout_ms);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC; writes the peer's address text into `addr` (may be empty).
int cepoll_accept(int fd, char *addr, int addrlen);
/// Disables Nagle's algorithm.
int cepoll_set_nodelay(int fd);
/// The eventfd used to wake a loop thread.
int cepoll_eventfd(void);

#endif
