; A zenotravel-style domain: aircraft fly people between cities, burning fuel levels.
; Both people and aircraft can be at a city: the 'at' predicate takes (either person aircraft).
(define (domain zenotravel-style)
  (:requirements :typing)
  (:types aircraft person city fuel - object)
  (:predicates (at ?x - (either person aircraft) ?c - city)
               (in ?p - person ?a - aircraft)
               (fuel-level ?a - aircraft ?l - fuel)
               (next ?l1 ?l2 - fuel))
  (:action board
    :parameters (?p - person ?a - aircraft ?c - city)
    :precondition (and (at ?p ?c) (at ?a ?c))
    :effect (and (not (at ?p ?c)) (in ?p ?a)))
  (:action debark
    :parameters (?p - person ?a - aircraft ?c - city)
    :precondition (and (in ?p ?a) (at ?a ?c))
    :effect (and (not (in ?p ?a)) (at ?p ?c)))
  (:action fly
    :parameters (?a - aircraft ?from ?to - city ?l1 ?l2 - fuel)
    :precondition (and (at ?a ?from) (fuel-level ?a ?l1) (next ?l2 ?l1))
    :effect (and (not (at ?a ?from)) (at ?a ?to) (not (fuel-level ?a ?l1)) (fuel-level ?a ?l2)))
  (:action refuel
    :parameters (?a - aircraft ?c - city ?l ?l1 - fuel)
    :precondition (and (fuel-level ?a ?l) (next ?l ?l1) (at ?a ?c))
    :effect (and (fuel-level ?a ?l1) (not (fuel-level ?a ?l)))))
