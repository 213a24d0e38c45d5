; An elevators-style domain: slow and fast cars serve some floors each; load is a counter.
(define (domain elevators-style)
  (:requirements :strips :typing)
  (:types car - object
          slow-car fast-car - car
          person level - object)
  (:predicates (waiting ?p - person ?f - level)
               (aboard ?p - person ?c - car)
               (car-at ?c - car ?f - level)
               (serves ?c - car ?f - level)
               (higher ?hi - level ?lo - level)
               (load ?c - car ?n - level)
               (room-for ?c - car ?n - level)
               (succ ?n - level ?m - level))
  (:action slow-up
    :parameters (?c - slow-car ?from ?to - level)
    :precondition (and (car-at ?c ?from) (higher ?to ?from) (serves ?c ?to))
    :effect (and (car-at ?c ?to) (not (car-at ?c ?from))))
  (:action slow-down
    :parameters (?c - slow-car ?from ?to - level)
    :precondition (and (car-at ?c ?from) (higher ?from ?to) (serves ?c ?to))
    :effect (and (car-at ?c ?to) (not (car-at ?c ?from))))
  (:action fast-up
    :parameters (?c - fast-car ?from ?to - level)
    :precondition (and (car-at ?c ?from) (higher ?to ?from) (serves ?c ?to))
    :effect (and (car-at ?c ?to) (not (car-at ?c ?from))))
  (:action fast-down
    :parameters (?c - fast-car ?from ?to - level)
    :precondition (and (car-at ?c ?from) (higher ?from ?to) (serves ?c ?to))
    :effect (and (car-at ?c ?to) (not (car-at ?c ?from))))
  (:action board
    :parameters (?p - person ?c - car ?f - level ?n ?m - level)
    :precondition (and (car-at ?c ?f) (waiting ?p ?f) (load ?c ?n) (succ ?n ?m) (room-for ?c ?m))
    :effect (and (not (waiting ?p ?f)) (aboard ?p ?c) (not (load ?c ?n)) (load ?c ?m)))
  (:action leave
    :parameters (?p - person ?c - car ?f - level ?n ?m - level)
    :precondition (and (car-at ?c ?f) (aboard ?p ?c) (load ?c ?n) (succ ?m ?n))
    :effect (and (waiting ?p ?f) (not (aboard ?p ?c)) (not (load ?c ?n)) (load ?c ?m))))
