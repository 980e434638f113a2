import './pages/centerPage.css';
import { useEffect } from 'react';
import { HomePage } from './pages/HomePage.tsx';
import { RoomPage } from './pages/RoomPage.tsx';
import { parseRoute, usePathname } from './routing.ts';
import { TeacherPage } from './teacher/TeacherPage.tsx';

export function App() {
  const route = parseRoute(usePathname());
  useEffect(() => {
    if (route.page === 'home') document.title = 'Classroom whiteboard';
    if (route.page === 'not_found') document.title = 'Page not found · Classroom whiteboard';
  }, [route.page]);
  switch (route.page) {
    case 'home':
      return <HomePage />;
    case 'teacher':
      return <TeacherPage />;
    case 'room':
      // Keyed by code: moving to another room starts from a clean page, not a reused one.
      return <RoomPage key={route.code} code={route.code} />;
    case 'not_found':
      return (
        <main className="center-page">
          <div className="card">
            <h1>Page not found</h1>
            <p>There is nothing at this address.</p>
            <a className="button button-primary" href="/">
              Go to the start page
            </a>
          </div>
        </main>
      );
  }
}
