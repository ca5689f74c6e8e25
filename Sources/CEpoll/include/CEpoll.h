#ifndef CEPOLL_H
#define CEPOLL_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#endif
