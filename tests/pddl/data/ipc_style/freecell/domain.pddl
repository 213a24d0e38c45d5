; A freecell-style solitaire, untyped like the IPC original: static facts say which card
; may go on which (canstack), suits, values and the successor relation on numbers.
(define (domain freecell-style)
  (:requirements :strips)
  (:predicates (on ?c1 ?c2) (incell ?c) (clear ?c) (cellspace ?n) (colspace ?n) (home ?c)
               (bottomcol ?c) (canstack ?c1 ?c2) (suit ?c ?s) (value ?c ?v) (successor ?n1 ?n0))
  (:action move
    :parameters (?card ?from ?to)
    :precondition (and (clear ?card) (clear ?to) (canstack ?card ?to) (on ?card ?from))
    :effect (and (on ?card ?to) (clear ?from) (not (on ?card ?from)) (not (clear ?to))))
  (:action move-b
    :parameters (?card ?to ?cols ?ncols)
    :precondition (and (clear ?card) (bottomcol ?card) (clear ?to) (canstack ?card ?to)
                       (colspace ?cols) (successor ?ncols ?cols))
    :effect (and (on ?card ?to) (colspace ?ncols) (not (bottomcol ?card)) (not (clear ?to))
                 (not (colspace ?cols))))
  (:action to-cell
    :parameters (?card ?from ?cells ?ncells)
    :precondition (and (clear ?card) (on ?card ?from) (cellspace ?cells) (successor ?cells ?ncells))
    :effect (and (incell ?card) (clear ?from) (cellspace ?ncells) (not (on ?card ?from))
                 (not (clear ?card)) (not (cellspace ?cells))))
  (:action from-cell
    :parameters (?card ?to ?cells ?ncells)
    :precondition (and (incell ?card) (clear ?to) (canstack ?card ?to) (cellspace ?cells)
                       (successor ?ncells ?cells))
    :effect (and (cellspace ?ncells) (clear ?card) (on ?card ?to) (not (incell ?card))
                 (not (clear ?to)) (not (cellspace ?cells))))
  (:action to-home
    :parameters (?card ?from ?s ?v ?homecard ?hv)
    :precondition (and (clear ?card) (on ?card ?from) (home ?homecard) (suit ?card ?s)
                       (suit ?homecard ?s) (value ?card ?v) (value ?homecard ?hv) (successor ?v ?hv))
    :effect (and (home ?card) (clear ?from) (not (on ?card ?from)) (not (home ?homecard))
                 (not (clear ?card))))
  (:action to-home-b
    :parameters (?card ?s ?v ?homecard ?hv ?cols ?ncols)
    :precondition (and (clear ?card) (bottomcol ?card) (home ?homecard) (suit ?card ?s)
                       (suit ?homecard ?s) (value ?card ?v) (value ?homecard ?hv) (successor ?v ?hv)
                       (colspace ?cols) (successor ?ncols ?cols))
    :effect (and (home ?card) (colspace ?ncols) (not (home ?homecard)) (not (clear ?card))
                 (not (bottomcol ?card)) (not (colspace ?cols))))
  (:action cell-to-home
    :parameters (?card ?s ?v ?homecard ?hv ?cells ?ncells)
    :precondition (and (incell ?card) (home ?homecard) (suit ?card ?s) (suit ?homecard ?s)
                       (value ?card ?v) (value ?homecard ?hv) (successor ?v ?hv) (cellspace ?cells)
                       (successor ?ncells ?cells))
    :effect (and (home ?card) (cellspace ?ncells) (not (incell ?card)) (not (home ?homecard)))))
